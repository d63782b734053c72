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

package shardlease

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	coordinationv1 "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/utils/clock"

	"github.com/kube-hpa/kube-hpa/pkg/shard"
)

// Work runs the controller on one shard (an index into
// shard.Split(Shards)) until ctx ends. The Manager runs it once per shard
// held, concurrently, each run with a context of its own: gaining or losing
// a shard starts or stops only that shard's run. It must return promptly
// once ctx ends: the release of the shard waits for it. A return while ctx
// is live is the replica's end, as a leader's controllers stopping is.
type Work func(ctx context.Context, shard int) error

// Options configures a Manager.
type Options struct {
	// Client reads and writes the Leases.
	Client coordinationv1.LeasesGetter
	// Namespace holds the Leases.
	Namespace string
	// Group names the set of replicas sharing the shards; it prefixes the
	// Leases' names (<Group>-shard-<i>, <Group>-replica-<suffix>) and labels
	// them, so that one list finds them all.
	Group string
	// Identity tells this replica from every other, also across restarts.
	Identity string
	// MemberSuffix ends the name of this replica's member Lease; it must be
	// unique among the group's replicas (a UUID does).
	MemberSuffix string
	// Shards is the fixed number of shards. Replicas that disagree on it do
	// not work together: one that sees a live Lease of another count
	// acquires nothing until that Lease expires.
	Shards int
	// LeaseDuration is how long another replica waits, from when it first
	// saw a Lease's last renewal, before it takes the shard.
	LeaseDuration time.Duration
	// RenewDeadline is how long this replica works a shard past its last
	// successful renewal; below LeaseDuration.
	RenewDeadline time.Duration
	// RetryPeriod is the time between two rounds of list, renew and plan.
	RetryPeriod time.Duration
	// Work is run on each shard held.
	Work Work
	// OnHeld, when set, is told the shards worked each time they change.
	OnHeld func(owned []int)
	// Count, when set, returns how many HPAs a shard worked has, from its
	// run, or false while that run does not know yet (its informers have
	// not synced). Each renewal writes the count in the shard's Lease, and
	// every replica weighs the shards by the counts it reads there; without
	// counts the shards weigh the same.
	Count func(shard int) (int, bool)
	// Clock defaults to the real clock.
	Clock clock.WithTickerAndDelayedExecution
}

func (o *Options) complete() error {
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	var errs []error
	if o.Client == nil {
		errs = append(errs, errors.New("a Lease client is required"))
	}
	if o.Work == nil {
		errs = append(errs, errors.New("the work to run on the shards is required"))
	}
	if o.Identity == "" {
		errs = append(errs, errors.New("the replica needs an identity"))
	}
	if _, err := shard.Split(o.Shards); err != nil {
		errs = append(errs, fmt.Errorf("shards: %w", err))
	}
	for _, name := range []string{o.shardLease(o.Shards - 1), o.memberLease()} {
		for _, msg := range validation.IsDNS1123Subdomain(name) {
			errs = append(errs, fmt.Errorf("lease name %q: %s", name, msg))
		}
	}
	if o.RetryPeriod <= 0 || o.RenewDeadline <= o.RetryPeriod || o.LeaseDuration <= o.RenewDeadline {
		errs = append(errs, fmt.Errorf("want 0 < retry period (%v) < renew deadline (%v) < lease duration (%v)",
			o.RetryPeriod, o.RenewDeadline, o.LeaseDuration))
	}
	return errors.Join(errs...)
}

func (o *Options) shardLease(i int) string { return o.shardPrefix() + strconv.Itoa(i) }

func (o *Options) shardPrefix() string { return o.Group + "-shard-" }

// shardIndex reads the shard of a Lease named by shardLease.
func (o *Options) shardIndex(name string) (int, bool) {
	digits, ok := strings.CutPrefix(name, o.shardPrefix())
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(digits)
	if err != nil || i < 0 || i >= o.Shards || o.shardLease(i) != name {
		return 0, false
	}
	return i, true
}

func (o *Options) memberLease() string { return o.Group + "-replica-" + o.MemberSuffix }
