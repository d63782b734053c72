package autoscaling

import (
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/kube-hpa/kube-hpa/test/e2e/framework"
)

// Tags of spec names, which are also their labels (ginkgo --label-filter),
// as upstream's e2e framework does.
const (
	featureHPA              = "Feature:HPA"
	featureFallback         = "Feature:HPAExternalMetricFallback"
	featureFallbackStrategy = "Feature:HPAExternalMetricFallbackStrategy"
	featureZero             = "Feature:HPAScaleToZero"
	serial                  = "Serial"
	disruptive              = "Disruptive"
)

// sigDescribe is upstream's SIGDescribe with tags: the container's text is
// "[sig-autoscaling] [tag]... text", each tag is also a label, and a
// Serial tag makes the container Serial.
func sigDescribe(tags []string, text string, body func()) bool {
	var b strings.Builder
	b.WriteString("[sig-autoscaling]")
	args := []any{ginkgo.Label(tags...)}
	for _, t := range tags {
		b.WriteString(" [" + t + "]")
		if t == serial {
			args = append(args, ginkgo.Serial)
		}
	}
	b.WriteString(" " + text)
	return ginkgo.Describe(b.String(), append(args, body)...)
}

// newFramework gives each spec of the enclosing container a namespace.
func newFramework(baseName string) *framework.Framework {
	return framework.NewFramework(baseName, func() *framework.Environment { return suite })
}

// reaction is how long a spec waits for the controller to act on a
// change: three sync periods (the change may land just after a sync, and
// the first sync of a new HPA waits one period), the age an external
// metric's answer may have, plus time for pods.
func reaction() time.Duration {
	return 3*suite.Config.SyncPeriod.Duration + staleness() + 15*time.Second
}

// staleness is how old an external metric may be when the controller
// uses it.
func staleness() time.Duration { return suite.Config.MetricSharingWindow.Duration }

// requireLocal skips a spec that must act on the controller processes,
// which only the local environment can do.
func requireLocal() {
	if suite.Controllers == nil {
		ginkgo.Skip("needs the local environment, where the suite runs the controllers itself (unset KUBECONFIG)")
	}
}
