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

// Package scalecache answers the HPA controller's scale reads of
// Deployments, ReplicaSets, StatefulSets and ReplicationControllers from
// watches of those objects instead of a GET of their /scale subresource on
// every reconcile: the one request per reconcile that capped an HPA
// controller at its client's QPS. Their objects carry the scale in their
// own fields, and the informers keep only those fields, so memory stays
// small; a kind is watched only while some HPA targets it, so a cluster
// whose HPAs target Deployments holds no ReplicaSet or StatefulSet. Every
// other kind, and every write, still goes to the API. A read
// never returns a scale older than one the controller itself wrote, and a
// read after a conflicting write goes to the API, so that the retry starts
// from the latest object.
package scalecache
