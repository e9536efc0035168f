// Package secrets finds credentials in text: API keys, tokens, private
// key blocks, passwords in URLs and assignments. A Set of Rules reports
// Matches (a kind and byte offsets, never the secret itself, so that no
// caller can print one by accident) and replaces them with
// [REDACTED:<kind>].
//
// Default is the general rule set (cc-redact); Blackbox holds Blackbox's
// own provider-neutrality patterns, so that cc-cassette verify flags
// exactly what Blackbox flags. The Anthropic and OpenAI shapes are written
// once and shared by both.
//
// Speed comes from a prefilter: every rule names keywords (literal anchors
// such as "ghp_" or "password"), the input is scanned once for all of them
// through a hashed table of byte trigrams at every second position, and a
// rule's regular expression runs anchored at a keyword hit on a short
// window. Text without a keyword costs one lookup per two bytes.
//
// The rules are written here rather than imported: gitleaks' rule list
// is the anchor for coverage, but its config package brings viper,
// zerolog and a wasm RE2 into the build, and its rules scan whole inputs
// with unanchored expressions.
package secrets
