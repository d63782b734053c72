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

// Package goroutine is how kube-hpa starts its goroutines and runs code
// whose panic must not end the process. A panic is recovered, logged with
// its stack through the context's logger, counted by the context's
// Observer, and handed as a *PanicError to whoever waits for the work, so
// that a bug meeting an object nobody foresaw costs one HPA's pass, not
// every HPA of the cluster. A goroutine started with a bare go statement
// would escape that, so a test of this package fails on any in pkg/.
package goroutine
