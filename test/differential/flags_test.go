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

package differential

import (
	"flag"
	"os"
	"strconv"
)

// The run's size and seed, from flags or (for make) the environment. The
// defaults are make differential-ci's, so that a plain go test here is the
// run CI makes: the excuse budget is a share of the run, and a smaller one
// (2,000 sequences of seed 1: 0.58%) does not stand for it.
var (
	seedFlag = flag.Int64("seed", envInt("DIFFERENTIAL_SEED", 1), "seed of the scenario generator")
	nFlag    = flag.Int("scenarios", int(envInt("DIFFERENTIAL_N", 5000)), "number of scenarios (sequences for the reconcile test)")
	caseFlag = flag.Int("case", -1, "run only this scenario index (with -seed) to reproduce it")
	showFlag = flag.Int("show", 5, "failing rows printed per class")
)

func envInt(name string, def int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv(name), 10, 64); err == nil {
		return v
	}
	return def
}

// indexes returns the scenario indexes the run covers.
func indexes() []int {
	if *caseFlag >= 0 {
		return []int{*caseFlag}
	}
	out := make([]int, *nFlag)
	for i := range out {
		out[i] = i
	}
	return out
}
