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

// Package webhook is the validating admission webhook of the extended HPA
// kind: it runs the same validator as the controller, with the process's
// feature gates, so that `kubectl apply` of an invalid HPA fails with the
// field path and the reason instead of being stored and ignored.
//
// It also bounds what a caller can take of it, since whatever can reach
// its port can call it: a body no larger than the API server ever sends,
// a deadline on reading and answering, and a number of reviews in flight
// past which it answers 429 rather than queueing. Every request it cannot
// review is answered with a status and a reason that say what was wrong.
package webhook
