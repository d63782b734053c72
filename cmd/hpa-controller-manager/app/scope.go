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
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"

	"github.com/kube-hpa/kube-hpa/pkg/controller/podautoscaler"
	"github.com/kube-hpa/kube-hpa/pkg/shard"
)

// scope is the part of the cluster one run of the controllers serves: all
// of it (the zero scope), or with --sharded the namespaces of the shards
// this replica holds.
type scope struct {
	// selector is the shardSelector of every list and watch; "" for all.
	selector string
	// filter repeats the selection on this side, for API servers that
	// ignore the selector; nil for all.
	filter *shard.Filter
	// shard is the shard of a sharded run; 0 when not sharded.
	shard int
	// counter is told the run's HPA stores; nil when not sharded.
	counter *hpaCounter
	// fence is asked before every write; nil when not sharded.
	fence podautoscaler.Fence
}

// scopeOf returns the scope of the shards owned out of shards.
func scopeOf(shards int, owned []int) (scope, error) {
	all, err := shard.Split(shards)
	if err != nil {
		return scope{}, err
	}
	ranges := make([]shard.Range, 0, len(owned))
	for _, i := range owned {
		if i < 0 || i >= len(all) {
			return scope{}, fmt.Errorf("shard %d out of %d", i, shards)
		}
		ranges = append(ranges, all[i])
	}
	selector, err := shard.SelectorFor(ranges)
	if err != nil {
		return scope{}, err
	}
	filter, err := shard.NewFilter(ranges)
	if err != nil {
		return scope{}, err
	}
	return scope{selector: selector, filter: &filter}, nil
}

// tweak sets the shard selector on a list or watch.
func (s scope) tweak(o *metav1.ListOptions) { o.ShardSelector = s.selector }

// inScope is the controller's namespace filter; nil for all.
func (s scope) inScope() func(string) bool {
	if s.filter == nil {
		return nil
	}
	return s.filter.Matches
}

// checkSelector asks the API server, with one small list, whether it
// applies the scope's selector, and says so in the log and the gauge.
// Answers are the same either way (the controller filters what it
// receives); only the traffic differs. It lists pods, a built-in kind: in
// v1.37 a custom resource's list is filtered too but carries no shardInfo
// to say so (TestShardSelectorAgreesWithTheAPIServer).
func checkSelector(ctx context.Context, kube kubernetes.Interface, s scope, honored *metrics.Gauge) {
	if s.selector == "" {
		return
	}
	logger := klog.FromContext(ctx)
	list, err := kube.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{Limit: 1, ShardSelector: s.selector})
	if err != nil {
		logger.Error(err, "Checking whether the API server applies the shard selector")
		return
	}
	applied, err := shard.ShardApplied(list, s.selector)
	if err != nil {
		logger.Error(err, "Checking whether the API server applies the shard selector")
		return
	}
	if applied {
		honored.Set(1)
		logger.Info("The API server applies the shard selector", "selector", s.selector)
		return
	}
	honored.Set(0)
	logger.Info("The API server ignores the shard selector (ShardedListAndWatch off, or a release before it): this replica receives every namespace's objects and keeps its shards' by itself", "selector", s.selector)
}
