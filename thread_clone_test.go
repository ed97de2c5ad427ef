package parley

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// fill sets every field of v (a settable value) to something non-zero,
// following pointers and slices, so a test sees every field a type has,
// including those added after the test was written.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(e)
		v.SetMapIndex(k, e)
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	}
}

// shared lists the fields of a and b (same type) whose memory they share:
// pointers, slices and maps at the same address.
func shared(path string, a, b reflect.Value) []string {
	var out []string
	switch a.Kind() {
	case reflect.Pointer, reflect.Map:
		if !a.IsNil() && a.Pointer() == b.Pointer() {
			out = append(out, path)
		}
		if a.Kind() == reflect.Pointer && !a.IsNil() {
			out = append(out, shared(path, a.Elem(), b.Elem())...)
		}
	case reflect.Slice:
		if a.Len() > 0 && a.Pointer() == b.Pointer() {
			out = append(out, path)
		}
		for i := range min(a.Len(), b.Len()) {
			out = append(out, shared(path+"[]", a.Index(i), b.Index(i))...)
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if a.Type().Field(i).IsExported() {
				out = append(out, shared(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i))...)
			}
		}
	}
	return out
}

// TestThreadCloneSharesNothing: storage hands out clones of the threads it
// caches, so a caller changing its copy cannot change the cache. A field
// added to Thread (or to what it points to) that Clone does not copy
// fails here.
func TestThreadCloneSharesNothing(t *testing.T) {
	var th Thread
	fill(reflect.ValueOf(&th).Elem())
	c := th.Clone()
	assert.Equal(t, th, c)
	assert.Empty(t, shared("Thread", reflect.ValueOf(th), reflect.ValueOf(c)))
	assert.Equal(t, Thread{}, Thread{}.Clone(), "absent parts stay absent")
}
