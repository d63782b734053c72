/*
Copyright The kube-hpa Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

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
