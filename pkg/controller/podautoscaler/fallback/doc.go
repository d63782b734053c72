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

// Package fallback holds the rules of KEP-5679's External metric fallback,
// as pure functions of the stored status, the metric's spec, the time and
// what computing the metric gave: whether a failure counts, when a run of
// failures makes the fallback due, which status entry to store, which
// condition to report and which events the stored change warrants. The
// controller calls them and applies their results; nothing here reads a
// clock, a client or the controller's state, so every rule is tested with
// plain tables.
package fallback
