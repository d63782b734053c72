// Command etcd is the etcd server of the local control plane, built from the
// go.etcd.io/etcd/server/v3 version pinned in hack/tools: etcd publishes its
// server as a library, so a main of our own is the only way to build it from
// the module proxy instead of downloading a release binary.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
