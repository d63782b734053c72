package framework

import (
	"context"
	"strconv"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// ScaleByHand sets a Deployment's replicas with kubectl scale, as a person
// pausing (0) or resuming a workload would.
func (f *Framework) ScaleByHand(ctx context.Context, name string, replicas int32) {
	ginkgo.GinkgoHelper()
	out, err := f.Kubectl(ctx, "", "scale", "deployment/"+name, "-n", f.Namespace, "--replicas="+strconv.Itoa(int(replicas)))
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "kubectl scale: %s", out)
}
