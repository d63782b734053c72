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

package behavior

// Checkpoint saves what the Store knows about the HPA with this key and
// returns the function that puts it back. A pass that decided from a state
// of the target that turned out to be stale decides again; the abandoned
// decision must leave no recommendation behind, or the next one would be
// stabilized against a count that was never asked on the target's real
// state.
func (s *Store) Checkpoint(key string) (restore func()) {
	st := s.state(key)
	st.mu.Lock()
	saved := hpaState{
		recommendations: append(recommendationHistory(nil), st.recommendations...),
		scaleUps:        append(eventHistory(nil), st.scaleUps...),
		scaleDowns:      append(eventHistory(nil), st.scaleDowns...),
	}
	st.mu.Unlock()
	return func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		st.recommendations, st.scaleUps, st.scaleDowns = saved.recommendations, saved.scaleUps, saved.scaleDowns
	}
}
