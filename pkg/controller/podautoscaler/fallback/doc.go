// Package fallback holds the rules of KEP-5679's External metric fallback,
// as pure functions of the stored status, the metric's spec, the time and
// what computing the metric gave: whether a failure counts, when a run of
// failures makes the fallback due, which status entry to store, which
// condition to report and which events the stored change warrants. The
// controller calls them and applies their results; nothing here reads a
// clock, a client or the controller's state, so every rule is tested with
// plain tables.
package fallback
