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

package integration

import (
	"testing"

	v2 "github.com/kube-hpa/kube-hpa/api/autoscaling/v2"
	"github.com/kube-hpa/kube-hpa/pkg/hpaclient"
)

// The HPA informers drop managedFields (hpaclient.DropManagedFields); the
// controller then writes status from a copy without them. The API server
// must keep every manager's entry, or a trimmed cache would erase who owns
// what in each HPA it reconciles.
func TestStatusWriteFromATrimmedHPAKeepsItsManagedFields(t *testing.T) {
	_, ctx, _, hpas, ns := setUpControllerTest(t)
	created, err := hpas.Create(ctx, externalHPA(ns, "trimmed", 10, nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(created.ManagedFields) == 0 {
		t.Fatal("the API server recorded no managed fields on create")
	}
	obj, err := hpaclient.DropManagedFields(created.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	trimmed := obj.(*v2.HorizontalPodAutoscaler)
	trimmed.Status.DesiredReplicas = 3
	if _, err := hpas.UpdateStatus(ctx, trimmed); err != nil {
		t.Fatal(err)
	}
	stored, err := hpas.Get(ctx, ns, "trimmed")
	if err != nil {
		t.Fatal(err)
	}
	if stored.Status.DesiredReplicas != 3 {
		t.Fatalf("the status write did not land: desired %d", stored.Status.DesiredReplicas)
	}
	managers := map[string]bool{}
	for _, e := range stored.ManagedFields {
		managers[e.Manager+"/"+string(e.Operation)+"/"+e.Subresource] = true
	}
	for _, e := range created.ManagedFields {
		if !managers[e.Manager+"/"+string(e.Operation)+"/"+e.Subresource] {
			t.Errorf("the entry of %s (%s) was lost: stored managed fields %v", e.Manager, e.Operation, stored.ManagedFields)
		}
	}
}
