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

package differential

import (
	"fmt"
	"reflect"
	"strings"
)

// literal prints v as a Go composite literal without its zero fields, so a
// scenario prints as a short row that compiles in this package's tables.
func literal(v any) string {
	var b strings.Builder
	writeLiteral(&b, reflect.ValueOf(v))
	return b.String()
}

func writeLiteral(b *strings.Builder, v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		b.WriteString(v.Type().Name())
		b.WriteString("{")
		first := true
		for i := range v.NumField() {
			f := v.Field(i)
			if f.IsZero() || !v.Type().Field(i).IsExported() {
				continue
			}
			if !first {
				b.WriteString(", ")
			}
			first = false
			b.WriteString(v.Type().Field(i).Name)
			b.WriteString(": ")
			writeLiteral(b, f)
		}
		b.WriteString("}")
	case reflect.Slice:
		b.WriteString("[]")
		b.WriteString(strings.TrimPrefix(v.Type().Elem().String(), "differential."))
		b.WriteString("{")
		for i := range v.Len() {
			if i > 0 {
				b.WriteString(", ")
			}
			if v.Index(i).Kind() == reflect.Struct {
				// The element type is implied inside a slice literal.
				var inner strings.Builder
				writeLiteral(&inner, v.Index(i))
				b.WriteString(strings.TrimPrefix(inner.String(), v.Index(i).Type().Name()))
				continue
			}
			writeLiteral(b, v.Index(i))
		}
		b.WriteString("}")
	case reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		b.WriteString("&")
		writeLiteral(b, v.Elem())
	case reflect.String:
		fmt.Fprintf(b, "%q", v.String())
	default:
		fmt.Fprintf(b, "%#v", v.Interface())
	}
}
