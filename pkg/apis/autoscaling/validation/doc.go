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

// Package validation holds the one validator of the extended autoscaling/v2
// HorizontalPodAutoscaler: every rule of upstream's autoscaling/v2 API plus
// the rules of KEP-5679 (fallback) and KEP-2021 (scale to zero), with each
// gated field ratcheted the way upstream ratchets (an update that keeps a
// field the old object already used stays valid after its gate is turned
// off). The admission webhook and the controller both call it, so that an
// object the API refuses is also an object the controller will not act on.
//
// The CRD schema (the markers of api/autoscaling/v2) repeats every rule
// here that no gate decides, with the same messages, so that the API server
// refuses an invalid HPA even without the webhook; a rule changed here is
// changed there too, and test/integration's crd_schema tests hold the two to
// the same answers.
package validation
