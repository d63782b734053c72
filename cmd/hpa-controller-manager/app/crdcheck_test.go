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
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fakediscovery "k8s.io/client-go/discovery/fake"
	clienttesting "k8s.io/client-go/testing"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
)

func TestCheckCRD(t *testing.T) {
	cases := []struct {
		name      string
		resources []*metav1.APIResourceList
		want      error
	}{
		{name: "a cluster serving the extended kind starts",
			resources: []*metav1.APIResourceList{{GroupVersion: v2.SchemeGroupVersion.String(), APIResources: []metav1.APIResource{{Name: v2.Resource}}}}},
		{name: "a cluster without the group is refused with what to install", want: errNoCRD},
		{name: "a cluster serving the group without the resource is refused", want: errNoCRD,
			resources: []*metav1.APIResourceList{{GroupVersion: v2.SchemeGroupVersion.String()}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			disc := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{Resources: tc.resources}}
			if err := checkCRD(disc); !errors.Is(err, tc.want) {
				t.Errorf("checkCRD = %v, want %v", err, tc.want)
			}
		})
	}
}
