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
