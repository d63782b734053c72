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

package chaos

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

// Options shape a chaos run.
type Options struct {
	// RepoRoot is the kube-hpa checkout; found from the working directory
	// when empty.
	RepoRoot string
	// Duration is how long faults are injected, after the workload has
	// settled and before the last checks.
	Duration time.Duration
	// HPAs is the size of the workload; ZeroHPAs, FallbackHPAs and PromHPAs
	// of them are of those groups, the rest are scaled by hand (see Group).
	HPAs, ZeroHPAs, FallbackHPAs, PromHPAs int
	// Nodes is the number of kwok nodes.
	Nodes int
	// SyncPeriod is the controllers' sync period.
	SyncPeriod time.Duration
	// FallbackAfter is the fallback HPAs' failureDurationSeconds (the CRD
	// takes 180 at least).
	FallbackAfter time.Duration
	// FallbackFaultOn and FallbackFaultOff are the cycle of the fallback
	// metric: failing for On, then served for Off, again and again.
	FallbackFaultOn, FallbackFaultOff time.Duration
	// InjectEvery is the time between two injections (see faults.go), which
	// go round the list of faults.
	InjectEvery time.Duration
	// HandScaleEvery is the time between two scales by hand.
	HandScaleEvery time.Duration
	// EtcdStall is how long etcd is stopped (SIGSTOP) at its injection.
	EtcdStall time.Duration
	// AdapterDown is how long the metrics adapter stays killed.
	AdapterDown time.Duration
	// Verbosity is the controllers' -v.
	Verbosity int
	// Seed seeds the choices of the scales by hand.
	Seed int64
	// ControllerFlags are appended to the replicas' command line (through
	// a wrapper of the binary, see controllerWrapper). 500 HPAs on a
	// metric each, every 15 s, take 33 fetches a second through the API
	// server, above the client's default limit of 20 QPS (as
	// kube-controller-manager's): an operator of that many HPAs raises it.
	ControllerFlags []string
}

// DefaultOptions are those of make chaos.
func DefaultOptions() Options {
	return Options{
		Duration:         10 * time.Minute,
		HPAs:             500,
		ZeroHPAs:         25,
		FallbackHPAs:     25,
		PromHPAs:         50,
		Nodes:            5,
		SyncPeriod:       15 * time.Second,
		FallbackAfter:    3 * time.Minute,
		FallbackFaultOn:  4 * time.Minute,
		FallbackFaultOff: 45 * time.Second,
		InjectEvery:      70 * time.Second,
		HandScaleEvery:   2 * time.Second,
		EtcdStall:        20 * time.Second,
		AdapterDown:      30 * time.Second,
		Verbosity:        2,
		Seed:             time.Now().UnixNano(),
		ControllerFlags:  []string{"--kube-api-qps=100", "--kube-api-burst=200"},
	}
}

// EnvDuration overrides the default Duration (make chaos CHAOS_DURATION=3m).
const EnvDuration = "CHAOS_DURATION"

// BindFlags registers o's fields on fs, with o's values as defaults; the
// default duration is EnvDuration's when set.
func (o *Options) BindFlags(fs *flag.FlagSet) error {
	if v := os.Getenv(EnvDuration); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("%s: %w", EnvDuration, err)
		}
		o.Duration = d
	}
	fs.StringVar(&o.RepoRoot, "repo-root", o.RepoRoot, "the kube-hpa checkout (default: found from the working directory)")
	fs.DurationVar(&o.Duration, "duration", o.Duration, "how long faults are injected (env "+EnvDuration+")")
	fs.IntVar(&o.HPAs, "hpas", o.HPAs, "HPAs of the workload")
	fs.IntVar(&o.ZeroHPAs, "zero-hpas", o.ZeroHPAs, "HPAs scaled to zero by the controller (ScaledToZero must stay)")
	fs.IntVar(&o.FallbackHPAs, "fallback-hpas", o.FallbackHPAs, "HPAs with a fallback on a metric that fails now and then")
	fs.IntVar(&o.PromHPAs, "prom-hpas", o.PromHPAs, "HPAs scaled by hand whose metric Prometheus answers")
	fs.IntVar(&o.Nodes, "nodes", o.Nodes, "kwok nodes")
	fs.DurationVar(&o.SyncPeriod, "sync-period", o.SyncPeriod, "the controllers' sync period")
	fs.DurationVar(&o.FallbackAfter, "fallback-after", o.FallbackAfter, "failureDurationSeconds of the fallback HPAs")
	fs.DurationVar(&o.FallbackFaultOn, "fallback-fault-on", o.FallbackFaultOn, "how long the fallback metric fails in each cycle")
	fs.DurationVar(&o.FallbackFaultOff, "fallback-fault-off", o.FallbackFaultOff, "how long it is served in each cycle")
	fs.DurationVar(&o.InjectEvery, "inject-every", o.InjectEvery, "time between two injected faults")
	fs.DurationVar(&o.HandScaleEvery, "hand-scale-every", o.HandScaleEvery, "time between two scales by hand")
	fs.DurationVar(&o.EtcdStall, "etcd-stall", o.EtcdStall, "how long etcd is stopped")
	fs.DurationVar(&o.AdapterDown, "adapter-down", o.AdapterDown, "how long the metrics adapter stays killed")
	fs.IntVar(&o.Verbosity, "controller-v", o.Verbosity, "the controllers' log verbosity (-v is this command's)")
	fs.Int64Var(&o.Seed, "seed", o.Seed, "seed of the scales by hand")
	fs.Func("controller-flags", "flags appended to the replicas' command line, comma-separated (default "+strings.Join(o.ControllerFlags, ",")+"; \"\" for none)", func(v string) error {
		o.ControllerFlags = nil
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				o.ControllerFlags = append(o.ControllerFlags, f)
			}
		}
		return nil
	})
	return nil
}

// Validate reports options that cannot make a run.
func (o Options) Validate() error {
	var errs []error
	if o.ZeroHPAs+o.FallbackHPAs+o.PromHPAs > o.HPAs {
		errs = append(errs, fmt.Errorf("zero, fallback and prom HPAs (%d) exceed -hpas (%d)", o.ZeroHPAs+o.FallbackHPAs+o.PromHPAs, o.HPAs))
	}
	if o.FallbackAfter < time.Second || o.FallbackAfter+2*o.SyncPeriod > o.FallbackFaultOn {
		errs = append(errs, fmt.Errorf("-fallback-fault-on (%v) must leave the fallback (%v) two periods (%v) to engage", o.FallbackFaultOn, o.FallbackAfter, o.SyncPeriod))
	}
	if o.Duration < 2*o.InjectEvery {
		errs = append(errs, fmt.Errorf("-duration (%v) is shorter than two injections (%v)", o.Duration, 2*o.InjectEvery))
	}
	return errors.Join(errs...)
}
