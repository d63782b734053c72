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

// TestValidateSyncPeriod pins KEP-6003's rules of spec.syncPeriodSeconds:
// from 3 to 3600 seconds, allowed by HPAConfigurableSyncPeriod or by an old
// object that already set it (ratcheting, whatever its value), and not
// checked further while its gate refuses it.
func TestValidateSyncPeriod(t *testing.T) {
	const path = "spec.syncPeriodSeconds"
	runValidationCases(t, []validationCase{
		{name: "3 seconds, the minimum, is valid when the gate is on", gates: syncPeriodOn, hpa: hpa(syncPeriod(3))},
		{name: "3600 seconds, the maximum, is valid when the gate is on", gates: syncPeriodOn, hpa: hpa(syncPeriod(3600))},
		{name: "15 seconds is valid when the gate is on", gates: syncPeriodOn, hpa: hpa(syncPeriod(15))},
		{
			name: "syncPeriodSeconds beside scaling rules is valid when the gate is on", gates: syncPeriodOn,
			hpa: hpa(behavior(rules(nil, podsPolicy(4, 15)), nil), syncPeriod(5)),
		},
		{name: "a behavior without syncPeriodSeconds needs no gate", gates: syncPeriodOff, hpa: hpa(behavior(rules(nil, podsPolicy(4, 15)), nil))},
		{name: "2 seconds, below the floor of 3, is invalid when the gate is on", gates: syncPeriodOn, hpa: hpa(syncPeriod(2)), want: []wantErr{invalid(path)}},
		{name: "0 is invalid when the gate is on", gates: syncPeriodOn, hpa: hpa(syncPeriod(0)), want: []wantErr{invalid(path)}},
		{name: "a negative period is invalid when the gate is on", gates: syncPeriodOn, hpa: hpa(syncPeriod(-15)), want: []wantErr{invalid(path)}},
		{name: "3601 seconds is invalid when the gate is on", gates: syncPeriodOn, hpa: hpa(syncPeriod(3601)), want: []wantErr{invalid(path)}},
		{
			name: "the largest int32 is invalid when the gate is on", gates: syncPeriodOn,
			hpa: hpa(syncPeriod(2147483647)), want: []wantErr{invalid(path)},
		},
		{name: "syncPeriodSeconds is forbidden on create when the gate is off", gates: syncPeriodOff, hpa: hpa(syncPeriod(5)), want: []wantErr{forbidden(path)}},
		{name: "syncPeriodSeconds is forbidden by the default gates", gates: gateSetting{}, hpa: hpa(syncPeriod(5)), want: []wantErr{forbidden(path)}},
		{
			name: "a refused syncPeriodSeconds is not checked further when the gate is off", gates: syncPeriodOff,
			hpa: hpa(syncPeriod(0)), want: []wantErr{forbidden(path)},
		},
		{
			name: "syncPeriodSeconds kept on update stays valid after the gate is turned off", gates: syncPeriodOff,
			old: hpa(syncPeriod(5)), hpa: hpa(syncPeriod(5), maxReplicas(20)),
		},
		{
			name: "syncPeriodSeconds changed on update stays valid when the old object set it", gates: syncPeriodOff,
			old: hpa(syncPeriod(5)), hpa: hpa(syncPeriod(60)),
		},
		{
			name: "a ratcheted syncPeriodSeconds is still checked for its bounds", gates: syncPeriodOff,
			old: hpa(syncPeriod(5)), hpa: hpa(syncPeriod(7200)), want: []wantErr{invalid(path)},
		},
		{
			name: "an out-of-range stored value ratchets an update to a valid one", gates: syncPeriodOff,
			old: hpa(syncPeriod(0)), hpa: hpa(syncPeriod(30)),
		},
		{
			name: "syncPeriodSeconds added on update is forbidden when the gate is off", gates: syncPeriodOff,
			old: hpa(), hpa: hpa(syncPeriod(5)), want: []wantErr{forbidden(path)},
		},
		{name: "syncPeriodSeconds added on update is valid when the gate is on", gates: syncPeriodOn, old: hpa(), hpa: hpa(syncPeriod(5))},
		{name: "syncPeriodSeconds removed on update is valid when the gate is off", gates: syncPeriodOff, old: hpa(syncPeriod(5)), hpa: hpa()},
		{name: "a stored syncPeriodSeconds is not refused after the gate is turned off", gates: syncPeriodOff, op: stored, hpa: hpa(syncPeriod(3))},
		{name: "a stored out-of-range syncPeriodSeconds is refused", gates: syncPeriodOff, op: stored, hpa: hpa(syncPeriod(0)), want: []wantErr{invalid(path)}},
	})
}

// TestValidateDeprecatedSyncPeriod pins what becomes of
// behavior.syncPeriodSeconds, where KEP-6003 first put the field: a stored
// HPA keeps it unchanged, with its meaning and its old bounds; a new or
// changed value, and the old field beside the new one, are refused with an
// error that names spec.syncPeriodSeconds, whatever the gates.
func TestValidateDeprecatedSyncPeriod(t *testing.T) {
	const path = "spec.behavior.syncPeriodSeconds"
	runValidationCases(t, []validationCase{
		{name: "the old field is refused on create", hpa: hpa(deprecatedSyncPeriod(5)), want: []wantErr{forbidden(path)}},
		{name: "the old field added on update is refused", old: hpa(), hpa: hpa(deprecatedSyncPeriod(5)), want: []wantErr{forbidden(path)}},
		{name: "the old field changed on update is refused", old: hpa(deprecatedSyncPeriod(5)), hpa: hpa(deprecatedSyncPeriod(6)), want: []wantErr{forbidden(path)}},
		{name: "the old field kept unchanged through an update is valid", old: hpa(deprecatedSyncPeriod(2)), hpa: hpa(deprecatedSyncPeriod(2), maxReplicas(20))},
		{name: "the old field's minimum of 1, kept unchanged, is valid", old: hpa(deprecatedSyncPeriod(1)), hpa: hpa(deprecatedSyncPeriod(1))},
		{name: "the old field removed on update is valid", old: hpa(deprecatedSyncPeriod(5)), hpa: hpa()},
		{name: "a stored HPA with the old field is valid", op: stored, hpa: hpa(deprecatedSyncPeriod(2))},
		{name: "a stored old field outside its bounds is refused", op: stored, hpa: hpa(deprecatedSyncPeriod(0)), want: []wantErr{invalid(path)}},
		{
			name: "the old field beside the new one is refused on update, even unchanged", gates: syncPeriodOn,
			old: hpa(deprecatedSyncPeriod(2)), hpa: hpa(deprecatedSyncPeriod(2), syncPeriod(30)), want: []wantErr{forbidden(path)},
		},
		{
			name: "moving the value to the new field is valid", gates: syncPeriodOn,
			old: hpa(deprecatedSyncPeriod(5)), hpa: hpa(syncPeriod(5)),
		},
	})
}
