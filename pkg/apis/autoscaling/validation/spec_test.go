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

package validation

import (
	"testing"
)

// TestValidateScaleTargetRef pins upstream's rules for spec.scaleTargetRef:
// kind and name are path segments, apiVersion must name an API group except
// for ReplicationController, and an update that keeps the target's kind and
// apiVersion is not checked for apiVersion at all.
func TestValidateScaleTargetRef(t *testing.T) {
	const (
		kindPath       = "spec.scaleTargetRef.kind"
		namePath       = "spec.scaleTargetRef.name"
		apiVersionPath = "spec.scaleTargetRef.apiVersion"
	)
	runValidationCases(t, []validationCase{
		{
			name: "a Deployment in apps/v1 is a valid target",
			hpa:  hpa(),
		},
		{
			name: "a custom resource in a custom group is a valid target",
			hpa:  hpa(target("Rollout", "web", "argoproj.io/v1alpha1")),
		},
		{
			name: "kind is required",
			hpa:  hpa(target("", "web", "apps/v1")),
			want: []wantErr{required(kindPath)},
		},
		{
			name: "kind may not contain a slash",
			hpa:  hpa(target("apps/Deployment", "web", "apps/v1")),
			want: []wantErr{invalid(kindPath)},
		},
		{
			name: "kind may not be a dot-dot path segment",
			hpa:  hpa(target("..", "web", "apps/v1")),
			want: []wantErr{invalid(kindPath)},
		},
		{
			name: "kind may not contain a percent sign",
			hpa:  hpa(target("Deploy%ment", "web", "apps/v1")),
			want: []wantErr{invalid(kindPath)},
		},
		{
			name: "name is required",
			hpa:  hpa(target("Deployment", "", "apps/v1")),
			want: []wantErr{required(namePath)},
		},
		{
			name: "name may not be a dot path segment",
			hpa:  hpa(target("Deployment", ".", "apps/v1")),
			want: []wantErr{invalid(namePath)},
		},
		{
			name: "name may not contain a slash",
			hpa:  hpa(target("Deployment", "web/1", "apps/v1")),
			want: []wantErr{invalid(namePath)},
		},
		{
			name: "apiVersion is required for a Deployment on create",
			hpa:  hpa(target("Deployment", "web", "")),
			want: []wantErr{invalid(apiVersionPath)},
		},
		{
			name: "apiVersion of the core group is refused for a Deployment",
			hpa:  hpa(target("Deployment", "web", "v1")),
			want: []wantErr{invalid(apiVersionPath)},
		},
		{
			name: "a malformed apiVersion is refused on create",
			hpa:  hpa(target("Deployment", "web", "apps/v1/v3")),
			want: []wantErr{invalid(apiVersionPath)},
		},
		{
			name: "a ReplicationController may use the core group apiVersion v1",
			hpa:  hpa(target("ReplicationController", "web", "v1")),
		},
		{
			name: "a ReplicationController may leave apiVersion empty",
			hpa:  hpa(target("ReplicationController", "web", "")),
		},
		{
			name: "a ReplicationController with a malformed apiVersion is refused",
			hpa:  hpa(target("ReplicationController", "web", "a/b/c")),
			want: []wantErr{invalid(apiVersionPath)},
		},
		{
			name: "an empty reference reports kind, name and apiVersion",
			hpa:  hpa(target("", "", "")),
			want: []wantErr{required(kindPath), required(namePath), invalid(apiVersionPath)},
		},
		{
			name: "an update that keeps an invalid apiVersion and kind stays valid",
			old:  hpa(target("Deployment", "web", "apps/v1/v2")),
			hpa:  hpa(target("Deployment", "web", "apps/v1/v2"), maxReplicas(20)),
		},
		{
			name: "an update that keeps an empty apiVersion of a Deployment stays valid",
			old:  hpa(target("Deployment", "web", "")),
			hpa:  hpa(target("Deployment", "web", ""), minReplicas(2)),
		},
		{
			name: "an update that changes an invalid apiVersion to another invalid one is refused",
			old:  hpa(target("Deployment", "web", "apps/v1/v2")),
			hpa:  hpa(target("Deployment", "web", "apps/v1/v3")),
			want: []wantErr{invalid(apiVersionPath)},
		},
		{
			name: "an update that changes the kind checks the kept invalid apiVersion",
			old:  hpa(target("Deployment", "web", "apps/v1/v2")),
			hpa:  hpa(target("StatefulSet", "web", "apps/v1/v2")),
			want: []wantErr{invalid(apiVersionPath)},
		},
		{
			name: "an update that changes the target to a ReplicationController in v1 is valid",
			old:  hpa(),
			hpa:  hpa(target("ReplicationController", "web", "v1")),
		},
		{
			name: "an update that changes a valid apiVersion to the core group is refused",
			old:  hpa(),
			hpa:  hpa(target("Deployment", "web", "v1")),
			want: []wantErr{invalid(apiVersionPath)},
		},
		{
			name: "an update that keeps the target type still checks the name",
			old:  hpa(target("Deployment", "web", "apps/v1/v2")),
			hpa:  hpa(target("Deployment", "", "apps/v1/v2")),
			want: []wantErr{required(namePath)},
		},
		{
			name: "a stored object with an invalid apiVersion is not refused for it",
			op:   stored,
			hpa:  hpa(target("Deployment", "web", "apps/v1/v2")),
		},
		{
			name: "a stored object is still checked for its kind",
			op:   stored,
			hpa:  hpa(target("apps/Deployment", "web", "apps/v1")),
			want: []wantErr{invalid(kindPath)},
		},
	})
}

// TestValidateReplicaBounds pins the rules of spec.minReplicas and
// spec.maxReplicas that do not involve scaling to zero.
func TestValidateReplicaBounds(t *testing.T) {
	const (
		minPath = "spec.minReplicas"
		maxPath = "spec.maxReplicas"
	)
	runValidationCases(t, []validationCase{
		{
			name: "minReplicas unset is defaulted to 1 and valid",
			hpa:  hpa(noMinReplicas(), maxReplicas(1)),
		},
		{
			name: "minReplicas equal to maxReplicas is valid",
			hpa:  hpa(minReplicas(5), maxReplicas(5)),
		},
		{
			name: "maxReplicas 0 is reported as required",
			hpa:  hpa(noMinReplicas(), maxReplicas(0)),
			// The defaulted minReplicas 1 is then above maxReplicas too.
			want: []wantErr{required(maxPath), invalid(maxPath)},
		},
		{
			name: "negative maxReplicas is invalid and below minReplicas",
			hpa:  hpa(maxReplicas(-1)),
			want: []wantErr{invalid(maxPath), invalid(maxPath)},
		},
		{
			name: "maxReplicas below minReplicas is invalid",
			hpa:  hpa(minReplicas(3), maxReplicas(2)),
			want: []wantErr{invalid(maxPath)},
		},
		{
			name: "negative minReplicas is invalid",
			hpa:  hpa(minReplicas(-1)),
			want: []wantErr{invalid(minPath)},
		},
		{
			name: "an update to maxReplicas below minReplicas is refused",
			old:  hpa(),
			hpa:  hpa(minReplicas(4), maxReplicas(3)),
			want: []wantErr{invalid(maxPath)},
		},
		{
			name: "a stored object with maxReplicas 0 is refused",
			op:   stored,
			hpa:  hpa(minReplicas(1), maxReplicas(0)),
			want: []wantErr{required(maxPath), invalid(maxPath)},
		},
		{
			name: "no metrics is valid because a CPU utilization metric is defaulted",
			hpa:  hpa(metrics()),
		},
	})
}
