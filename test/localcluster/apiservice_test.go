package localcluster

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

func TestAPIServiceServiceNameIsADNSLabel(t *testing.T) {
	tests := []struct{ group, version string }{
		{"external.metrics.k8s.io", "v1beta1"},
		{"custom.metrics.k8s.io", "v1beta2"},
		{strings.Repeat("very-long-group.", 8) + "example.com", "v1"},
	}
	for _, tc := range tests {
		t.Run(tc.group, func(t *testing.T) {
			name := apiServiceServiceName(tc.group, tc.version)
			if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
				t.Errorf("%q: %v", name, errs)
			}
			if want := name + ".kube-system.svc"; APIServiceServerName(tc.group, tc.version) != want {
				t.Errorf("server name %q, want %q", APIServiceServerName(tc.group, tc.version), want)
			}
		})
	}
}
