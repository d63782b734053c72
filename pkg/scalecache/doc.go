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
