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

package podautoscaler

import (
	"time"

	"k8s.io/utils/clock"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler/behavior"
)

// History is what the controller remembers of each HPA between passes and
// keeps nowhere else: its recommendations (the stabilization windows) and
// its scale events (the behavior policies' periods). A controller makes
// one of its own unless Options.History gives one that outlives it: a
// sharded replica restarts its controller when its shards change, and the
// HPAs of the shards it kept must not lose their windows and periods (a
// policy period forgotten lets a scale-up exceed its policy).
type History struct {
	store           *behavior.Store
	downscaleWindow time.Duration
}

// NewHistory returns an empty History for controllers whose
// --horizontal-pod-autoscaler-downscale-stabilization is downscaleWindow.
func NewHistory(clk clock.PassiveClock, downscaleWindow time.Duration) *History {
	return &History{
		store:           behavior.NewStore(behavior.Options{Clock: clk, DownscaleStabilizationWindow: downscaleWindow}),
		downscaleWindow: downscaleWindow,
	}
}

// KeepOnly forgets the HPAs of every namespace that inScope refuses: those
// another replica may have decided for since this one last did.
func (h *History) KeepOnly(inScope func(namespace string) bool) {
	h.store.ForgetIf(func(key string) bool { return !inScope(namespaceOfKey(key)) })
}
