// Package podstrip keeps of each Pod in the controller's informer only what
// the replica calculator and the selector index read: labels, phase,
// readiness, start time, deletion and resource requests. A cluster's pods
// are the largest cache an HPA controller holds, and most of each object
// (images, volumes, environment, managed fields, container statuses) is
// never read by it.
package podstrip
