// Package cassette reads, writes, hashes and checks Blackbox cassettes
// (schema version 2): a run of an agent as a hash-chained list of steps.
//
// A step's hash is the lowercase hex SHA-256 of the canonical JSON of
// {index, type, timestamp, payload, prevHash}, where "canonical" is what
// Node's JSON.stringify writes with object keys sorted by UTF-16 code
// units. Go's encoding/json cannot produce that text (it escapes U+2028,
// sorts keys by UTF-8 bytes, keeps "-0" and "1.0", and turns an escaped
// lone surrogate into U+FFFD), so the package carries its own JSON value
// type (Value), parser (Parse) and encoders (AppendCanonical, AppendJS,
// AppendIndent).
//
// A cassette exists in two forms, both read by Reader (told apart by
// content): Blackbox's single JSON object with a "steps" array, and
// ccpipe's NDJSON form, a header line (the top-level fields without
// "steps") followed by one step per line. Recorder builds a new chain.
package cassette
