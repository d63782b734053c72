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
	"fmt"
	"unsafe"

	upstream "k8s.io/kubernetes/pkg/controller/podautoscaler"
)

// upstreamTolerances builds upstream's Tolerances, whose fields are
// unexported. Its layout is two float64s, scale-down then scale-up; String
// is checked so that a change of that layout fails loudly instead of
// comparing against zero tolerances.
func upstreamTolerances(down, up float64) upstream.Tolerances {
	var t upstream.Tolerances
	*(*[2]float64)(unsafe.Pointer(&t)) = [2]float64{down, up}
	if got, want := t.String(), fmt.Sprintf("[down:%.1f%%, up:%.1f%%]", down*100., up*100.); got != want {
		panic(fmt.Sprintf("upstream Tolerances layout changed: built %s, want %s", got, want))
	}
	return t
}
