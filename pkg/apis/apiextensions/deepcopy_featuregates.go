/*
Copyright 2026 The Kubernetes Authors.

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

package apiextensions

import "k8s.io/apimachinery/pkg/runtime"

// DeepCopy copies a FeatureGatedValidation. It is written by hand, like JSONSchemaProps's,
// because Enum holds JSON values (interface{}); deepcopy-gen derives DeepCopyInto from it.
func (in *FeatureGatedValidation) DeepCopy() *FeatureGatedValidation {
	if in == nil {
		return nil
	}
	out := new(FeatureGatedValidation)
	*out = *in
	copyFloat := func(p *float64) *float64 {
		if p == nil {
			return nil
		}
		v := *p
		return &v
	}
	copyInt := func(p *int64) *int64 {
		if p == nil {
			return nil
		}
		v := *p
		return &v
	}
	out.Maximum = copyFloat(in.Maximum)
	out.Minimum = copyFloat(in.Minimum)
	out.MultipleOf = copyFloat(in.MultipleOf)
	out.MaxLength = copyInt(in.MaxLength)
	out.MinLength = copyInt(in.MinLength)
	out.MaxItems = copyInt(in.MaxItems)
	out.MinItems = copyInt(in.MinItems)
	out.MaxProperties = copyInt(in.MaxProperties)
	out.MinProperties = copyInt(in.MinProperties)
	if in.Enum != nil {
		out.Enum = make([]JSON, len(in.Enum))
		for i := range in.Enum {
			out.Enum[i] = runtime.DeepCopyJSONValue(in.Enum[i])
		}
	}
	if in.Required != nil {
		out.Required = make([]string, len(in.Required))
		copy(out.Required, in.Required)
	}
	return out
}
