// Reads BibTeX or RIS on standard input with citation-js's parsers and
// prints what they read as CSL-JSON: node parse.mjs bibtex|ris
import { Cite, plugins } from '@citation-js/core'
import '@citation-js/plugin-bibtex'
import '@citation-js/plugin-ris'

const format = process.argv[2]
const types = { bibtex: '@bibtex/text', ris: '@ris/file' }
if (!types[format]) {
  console.error('usage: node parse.mjs bibtex|ris')
  process.exit(2)
}
let input = ''
process.stdin.setEncoding('utf8')
for await (const chunk of process.stdin) input += chunk
const warnings = []
const origWarn = console.warn
console.warn = (...a) => warnings.push(a.join(' '))
try {
  const data = plugins.input.chain(input, { forceType: types[format], generateGraph: false, strict: true })
  process.stdout.write(JSON.stringify({ items: data, warnings }))
} catch (e) {
  console.warn = origWarn
  console.error(String(e && e.stack || e))
  process.exit(1)
}
