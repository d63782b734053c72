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
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
)

// Events lists the events of the spec's namespace about object (every
// event when object is empty), oldest first.
func (f *Framework) Events(ctx context.Context, object string) []corev1.Event {
	ginkgo.GinkgoHelper()
	opts := metav1.ListOptions{}
	if object != "" {
		opts.FieldSelector = fields.OneTermEqualSelector("involvedObject.name", object).String()
	}
	list, err := f.Kube.CoreV1().Events(f.Namespace).List(ctx, opts)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "listing events")
	events := list.Items
	sort.SliceStable(events, func(i, j int) bool { return eventTime(events[i]).Before(eventTime(events[j])) })
	return events
}

func eventTime(e corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	}
	return e.CreationTimestamp.Time
}

// EventDeliveryDelay is how long after the change it reports an event may
// reach the API server, on top of the time the change itself takes. A
// controller's event broadcaster (client-go's, in kube-controller-manager
// as here) writes its events one at a time, after the pass that recorded
// them; when both suites run at once on two cores, every write is slow and
// that queue falls a minute or more behind the scales it reports (both
// modes, seen in CI and locally), while the scales themselves are on time.
const EventDeliveryDelay = 3 * time.Minute

// WaitForEvent waits for an event about object with reason whose message
// contains messagePart (may be empty), and returns it. It waits timeout
// plus EventDeliveryDelay: timeout is for what the event reports.
func (f *Framework) WaitForEvent(ctx context.Context, object, reason, messagePart string, timeout time.Duration) corev1.Event {
	ginkgo.GinkgoHelper()
	timeout += EventDeliveryDelay
	var found corev1.Event
	gomega.Eventually(ctx, func(ctx context.Context) error {
		var seen []string
		for _, e := range f.Events(ctx, object) {
			if e.Reason == reason && strings.Contains(e.Message, messagePart) {
				found = e
				return nil
			}
			seen = append(seen, e.Reason+": "+e.Message)
		}
		return fmt.Errorf("events so far: %q", seen)
	}).WithTimeout(timeout).WithPolling(500*time.Millisecond).Should(gomega.Succeed(),
		"an event %s about %s containing %q", reason, object, messagePart)
	return found
}
