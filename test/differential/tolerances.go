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
