// Package querylang tells whether a search query reads as English rather
// than Dutch, and words the advice to search in Dutch. Every platform
// BesluitBron reaches holds Dutch documents: "nitrogen" finds nothing
// where "stikstof" finds thousands, and an assistant that gets zero
// results with every platform "ok" cannot tell the difference between
// "no such documents" and "wrong language".
//
// The test is deliberately small and errs towards silence: a query is
// English only when it has an English signal (a common English word that
// is no Dutch word, or an English-only ending such as -tion or -ity) and
// no Dutch one (a Dutch function word, or the letter pairs ij, aa, uu, oe
// that English words rarely have). A mixed query ("klimaat policy") is
// taken as Dutch: the hint is for the query that cannot work at all.
//
//	if querylang.English(q) { hint := querylang.Hint(q) }
package querylang
