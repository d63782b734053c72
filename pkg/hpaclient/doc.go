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

// Package hpaclient reads and writes the extended HorizontalPodAutoscaler
// kind (autoscaling.kube-hpa.io/v2) served by the CRD: a small typed REST
// client and a shared informer over it. It is hand-written rather than
// generated because the controller needs four verbs (list, watch, get,
// update status) and no generated clientset would be smaller.
package hpaclient
