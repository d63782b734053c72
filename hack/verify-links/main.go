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

// Command verify-links checks every Markdown file of the repository: each
// relative link names a file that exists, and each #anchor names a heading
// of its file as GitHub renders heading anchors. It is run by
// "make verify-links", so a page moved or a heading renamed cannot leave a
// dead link behind.
package main

import (
	"os"
)

func main() {
	dir := "."
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	os.Exit(run(dir))
}
