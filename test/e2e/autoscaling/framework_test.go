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

package autoscaling

import (
	"fmt"
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
	featureSyncPeriod       = "Feature:HPAConfigurableSyncPeriod"
	featureDecisionTrace    = "Feature:KubeHPADecisionTrace"
	featureSharded          = "Feature:ShardedHPAController"
	serial                  = "Serial"
	disruptive              = "Disruptive"
	// crdMode is a label, not a tag of the name: specs of
	// hpa-controller-manager itself (its CRD, webhook, ServiceAccount,
	// leader election, and the fallback strategy, which the in-tree patch
	// does not carry). In in-tree mode they skip, and make e2e-intree
	// leaves them out with --label-filter='!CRDMode'.
	crdMode = "CRDMode"
	// inTreeMode is a label: specs of the in-tree mode alone (they skip in
	// CRD mode).
	inTreeMode = "InTreeMode"
)

// labelOnly are the tags that sigDescribe makes labels without naming
// them in the text.
func labelOnly(tag string) bool { return tag == crdMode || tag == inTreeMode }

// sigDescribe is upstream's SIGDescribe with tags: the container's text is
// "[sig-autoscaling] [tag]... text", each tag is also a label, and a
// Serial tag makes the container Serial.
func sigDescribe(tags []string, text string, body func()) bool {
	var b strings.Builder
	b.WriteString("[sig-autoscaling]")
	args := []any{ginkgo.Label(tags...)}
	var only framework.Mode
	for _, t := range tags {
		switch t {
		case crdMode:
			only = framework.ModeCRD
		case inTreeMode:
			only = framework.ModeInTree
		}
		if labelOnly(t) {
			continue
		}
		b.WriteString(" [" + t + "]")
		if t == serial {
			args = append(args, ginkgo.Serial)
		}
	}
	b.WriteString(" " + text)
	if only != "" {
		inner := body
		body = func() {
			// Registered first, so that it skips before newFramework
			// creates a namespace.
			ginkgo.BeforeEach(func() { requireMode(only) })
			inner()
		}
	}
	return ginkgo.Describe(b.String(), append(args, body)...)
}

// requireMode skips a spec that needs the controller to run in mode.
func requireMode(mode framework.Mode) {
	if suite.Config.Mode == mode {
		return
	}
	switch mode {
	case framework.ModeCRD:
		ginkgo.Skip("runs only in CRD mode: it tests hpa-controller-manager itself (its CRD, webhook, ServiceAccount, " +
			"leader election or the fallback strategy, which the in-tree patch does not carry)")
	default:
		ginkgo.Skip(fmt.Sprintf("runs only in %s mode (%s=%s)", mode, framework.EnvMode, mode))
	}
}

// hpaKind is the kind of HPA the specs of the KEPs create: the extended
// kind in CRD mode, native autoscaling/v2 in in-tree mode.
func hpaKind() framework.HPAKind { return suite.Config.HPAKind }

// requireKind skips a spec on HPAs of kind where no controller manages
// them (the extended kind in in-tree mode).
func requireKind(kind framework.HPAKind) {
	if !suite.Config.Mode.Serves(kind) {
		ginkgo.Skip(fmt.Sprintf("%s mode has no controller of %s HPAs", suite.Config.Mode, kind))
	}
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

// requireLocal skips a spec that must act on the processes of the
// environment, which only the local environment can do.
func requireLocal() {
	if !suite.Config.Local {
		ginkgo.Skip("needs the local environment, where the suite runs the controllers itself (unset KUBECONFIG)")
	}
}
