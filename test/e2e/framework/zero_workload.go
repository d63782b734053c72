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
