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

// Package adapter holds the metric providers of the test metrics adapter:
// an external metrics provider and a custom metrics provider for
// sigs.k8s.io/custom-metrics-apiserver, whose values and faults come from the
// data of one ConfigMap (see README.md beside this module for its format).
//
// The providers read a Source, which is either a ConfigMap watched with an
// informer (ConfigMapSource, what the binary uses) or fixed data
// (StaticSource, what unit tests use), so they can be tested without a
// server. A FetchCounter counts the fetches of every metric by outcome and
// exposes them as JSON and as a Prometheus collector.
package adapter
