// Package pdfwrite writes small, valid PDF files of text, for the platform
// simulator (the Tweede Kamer serves its documents as PDF) and for the
// tests of the PDF text extraction. It owns nothing else: no layout beyond
// one text line per line, no fonts beyond the standard Helvetica.
package pdfwrite
