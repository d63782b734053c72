package monitor

// ActionLabel is the "action" label: what a reconciliation did to the
// target's replicas, or which way a metric pointed.
type ActionLabel string

// ErrorLabel is the "error" label: the kind of the first error met, if any.
type ErrorLabel string

// Label values, as upstream.
const (
	ActionLabelScaleUp   ActionLabel = "scale_up"
	ActionLabelScaleDown ActionLabel = "scale_down"
	ActionLabelNone      ActionLabel = "none"

	// ErrorLabelSpec is an error in the HPA's spec, which only its author
	// can fix.
	ErrorLabelSpec ErrorLabel = "spec"
	// ErrorLabelInternal is any other error: a failed computation or a
	// failed call to another component.
	ErrorLabelInternal ErrorLabel = "internal"
	// ErrorLabelNone means no error.
	ErrorLabelNone ErrorLabel = "none"
)
