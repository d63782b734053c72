package shard

// FNV-1a, 64-bit variant: the offset basis and prime of the specification.
const (
	fnv64Offset uint64 = 0xcbf29ce484222325
	fnv64Prime  uint64 = 0x100000001b3
)

// NamespaceHash returns the 64-bit FNV-1a hash of the bytes of namespace.
// It is the value kube-apiserver compares with the bounds of a
// shardRange(object.metadata.namespace, ...) selector, so an object is in a
// Range exactly when the Range contains the hash of its namespace.
// Cluster-scoped objects have the namespace "".
//
// The loop is written out rather than using hash/fnv so that filtering every
// watch event costs no allocation; tests pin it against hash/fnv and the
// API server's own function.
func NamespaceHash(namespace string) uint64 {
	h := fnv64Offset
	for i := 0; i < len(namespace); i++ {
		h ^= uint64(namespace[i])
		h *= fnv64Prime
	}
	return h
}
