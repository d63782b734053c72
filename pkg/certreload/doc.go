// Package certreload serves a TLS certificate from a certificate file and
// a key file and follows them when they are replaced, so that a renewal
// (cert-manager rewriting the Secret behind a mounted volume) reaches new
// connections without restarting the process.
//
// The files are looked at from the TLS handshake itself, at most once per
// check interval: no goroutine, no file watcher, and nothing to do while no
// one connects. A pair that does not load keeps the previous one in
// service, so a half-written renewal never costs a handshake.
package certreload
