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
