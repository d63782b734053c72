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

package app

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/leaderelection"
	componentbaseconfig "k8s.io/component-base/config"
	"k8s.io/klog/v2/ktesting"

	"github.com/kube-hpa/kube-hpa/cmd/hpa-controller-manager/app/config"
)

// TestLeaderExitsWhenItCannotLead pins that a replica never holds the
// lease while doing nothing: when the controllers fail to start, or stop,
// after it won the lease, runWithLeaderElection returns an error (the
// process exits non-zero and the pod restarts) and the lease is released
// for the other replica; only a requested shutdown returns nil.
func TestLeaderExitsWhenItCannotLead(t *testing.T) {
	for _, tc := range []struct {
		name string
		lead func(ctx context.Context) error
		// shutdown cancels the process's context once leading.
		shutdown bool
		want     string // "" for no error
	}{
		{name: "controllers that fail to start end the process", lead: func(context.Context) error { return errors.New("no RBAC for pods") },
			want: "leading: no RBAC for pods"},
		{name: "controllers that stop while leading end the process", lead: func(context.Context) error { return nil },
			want: "the controllers stopped while this replica leads"},
		{name: "a shutdown while leading ends it cleanly", shutdown: true,
			lead: func(ctx context.Context) error { <-ctx.Done(); return nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ctx := ktesting.NewTestContext(t)
			ctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			kube := fake.NewClientset()
			cfg := &config.Config{LeaderElection: componentbaseconfig.LeaderElectionConfiguration{
				LeaderElect:       true,
				LeaseDuration:     metav1.Duration{Duration: 3 * time.Second},
				RenewDeadline:     metav1.Duration{Duration: 2 * time.Second},
				RetryPeriod:       metav1.Duration{Duration: 100 * time.Millisecond},
				ResourceName:      "hpa-controller-manager",
				ResourceNamespace: "kube-hpa-system",
			}}
			lead := tc.lead
			if tc.shutdown {
				inner := lead
				lead = func(leadCtx context.Context) error {
					cancel()
					return inner(leadCtx)
				}
			}
			err := runWithLeaderElection(ctx, cfg, &clients{kube: kube}, leaderelection.NewLeaderHealthzAdaptor(time.Second), lead)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("runWithLeaderElection = %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("runWithLeaderElection = %v, want an error saying %q", err, tc.want)
			}
			lease, err := kube.CoordinationV1().Leases("kube-hpa-system").Get(context.Background(), "hpa-controller-manager", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if holder := lease.Spec.HolderIdentity; holder != nil && *holder != "" {
				t.Errorf("lease still held by %q after the replica stopped leading", *holder)
			}
		})
	}
}
