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

package options

import (
	"fmt"

	"github.com/spf13/pflag"
	componentbaseconfig "k8s.io/component-base/config"

	"github.com/kube-hpa/kube-hpa/pkg/shard"
)

// ShardingOptions split the HPAs between replicas by namespace (KEP-5866's
// sharded list and watch) instead of electing one leader for all of them.
type ShardingOptions struct {
	Enabled bool
	Shards  int32
}

// DefaultShards lets up to 16 replicas share the HPAs.
const DefaultShards = 16

func (o *ShardingOptions) addFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.Enabled, "sharded", o.Enabled, "Split the HPAs between every running replica by a hash of their namespace, each replica holding a fair share of --shards shards through one Lease per shard (named after --leader-elect-resource-name, with its lease duration, renew deadline and retry period), instead of one elected leader running them all. Each replica lists and watches only its shards with the shardSelector of KEP-5866 (kube-apiserver's ShardedListAndWatch gate) and filters on its side where the API server ignores it.")
	fs.Int32Var(&o.Shards, "shards", o.Shards, "With --sharded, the number of shards, the same on every replica; at most this many replicas get work.")
}

func (o *ShardingOptions) validate(le *componentbaseconfig.LeaderElectionConfiguration) []error {
	if !o.Enabled {
		return nil
	}
	var errs []error
	if _, err := shard.Split(int(o.Shards)); err != nil {
		errs = append(errs, fmt.Errorf("--shards: %w", err))
	}
	if !le.LeaderElect {
		errs = append(errs, fmt.Errorf("--sharded holds its shards with the Leases and timings of --leader-elect-*: it needs --leader-elect=true"))
	}
	if le.RenewDeadline.Duration <= le.RetryPeriod.Duration {
		errs = append(errs, fmt.Errorf("--sharded needs --leader-elect-renew-deadline (%v) greater than --leader-elect-retry-period (%v)",
			le.RenewDeadline.Duration, le.RetryPeriod.Duration))
	}
	return errs
}
