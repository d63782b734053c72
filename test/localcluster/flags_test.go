package localcluster

import (
	"slices"
	"strings"
	"testing"
)

// TestFlagsCarryTheEstablishedFacts pins the flags DESIGN.md lists as
// needed for each component, so that a refactoring cannot drop one quietly.
func TestFlagsCarryTheEstablishedFacts(t *testing.T) {
	l := layout{runDir: "/run", kubeconfig: "/run/kubeconfig", caCert: "/run/pki/ca.crt", apiServerPort: 6443}
	tests := []struct {
		component string
		flags     []string
		want      []string
	}{
		{binAPIServer, apiServerFlags(l), []string{
			"--authorization-mode=Node,RBAC", "--feature-gates=HPAScaleToZero=true", "--token-auth-file=",
			"--service-account-key-file=", "--service-account-signing-key-file=", "--service-account-issuer=",
			"--requestheader-client-ca-file=", "--requestheader-allowed-names=front-proxy-client",
			"--proxy-client-cert-file=", "--proxy-client-key-file=", "--secure-port=6443",
		}},
		{binControllerManager, controllerManagerFlags(l), []string{
			"--controllers=*,-horizontalpodautoscaling", "--root-ca-file=/run/pki/ca.crt",
			"--service-account-private-key-file=", "--kubeconfig=/run/kubeconfig",
		}},
		{binScheduler, schedulerFlags(l), []string{"--kubeconfig=/run/kubeconfig", "--bind-address=127.0.0.1"}},
		{binKwok, kwokFlags(l), []string{"--config=", "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake"}},
	}
	for _, tc := range tests {
		t.Run(tc.component, func(t *testing.T) {
			for _, want := range tc.want {
				if !slices.ContainsFunc(tc.flags, func(f string) bool { return strings.HasPrefix(f, want) }) {
					t.Errorf("no flag %q in %v", want, tc.flags)
				}
			}
		})
	}
}

func TestFakeNodesMatchKwokSelector(t *testing.T) {
	node := fakeNode("n")
	if node.Annotations[kwokNodeAnnotationKey] != kwokNodeAnnotationValue {
		t.Errorf("node annotations %v do not match kwok's selector", node.Annotations)
	}
	if len(node.Spec.Taints) != 0 {
		t.Errorf("a tainted node would need tolerations in every test: %v", node.Spec.Taints)
	}
}
