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

package v1

// CustomFeatureGatePreRelease is the stage of development of the fields a custom feature
// gate guards.
// +enum
type CustomFeatureGatePreRelease string

const (
	// CustomFeatureGateAlpha marks fields that are disabled unless a cluster admin enables them.
	CustomFeatureGateAlpha CustomFeatureGatePreRelease = "alpha"
	// CustomFeatureGateBeta marks fields that are enabled unless a cluster admin disables them.
	CustomFeatureGateBeta CustomFeatureGatePreRelease = "beta"
	// CustomFeatureGateStable marks fields that are always enabled.
	CustomFeatureGateStable CustomFeatureGatePreRelease = "stable"
	// CustomFeatureGateDeprecated marks fields that draw a warning when they are used.
	CustomFeatureGateDeprecated CustomFeatureGatePreRelease = "deprecated"
)

// CustomResourceDefinitionFeatureGates declares feature gates for fields of the custom
// resources of a CustomResourceDefinition (KEP-2608).
type CustomResourceDefinitionFeatureGates struct {
	// featureGates lists the gates. No field path may be guarded by two gates.
	// +listType=map
	// +listMapKey=name
	// +optional
	FeatureGates []CustomResourceDefinitionFeatureGate `json:"featureGates,omitempty" protobuf:"bytes,1,rep,name=featureGates"`

	// component names the project responsible for these gates, such as the operator that
	// owns the CRD. It is published with the gates. Must be a DNS-1123 subdomain.
	// +optional
	Component *string `json:"component,omitempty" protobuf:"bytes,2,opt,name=component"`
}

// CustomResourceDefinitionFeatureGate declares one feature gate and the fields it guards.
//
// Whether a gate is enabled follows these rules, in order: a stable gate is enabled; else
// `enabled` decides when it is set; else `default` decides when it is set; else a beta gate
// is enabled; else (alpha or deprecated) it is disabled. A gate that requires other gates is
// enabled only when, in addition, every gate it requires, and at least one gate of
// requiresAnyOf when that is set, is enabled. A field is live only
// when its own gate and the gates of all its gated ancestors are enabled.
type CustomResourceDefinitionFeatureGate struct {
	// name identifies the gate. It is UpperCamelCase: an upper-case letter followed by
	// letters and digits, at most 63 characters, and unique within the CRD.
	// +required
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`

	// preRelease is the stage of the guarded fields: alpha, beta, stable or deprecated.
	// +required
	PreRelease CustomFeatureGatePreRelease `json:"preRelease" protobuf:"bytes,2,opt,name=preRelease,casttype=CustomFeatureGatePreRelease"`

	// enabled is the cluster admin's choice. When set, it decides whether the gate is enabled,
	// except for a stable gate, which is always enabled and may not set enabled to false.
	// +optional
	Enabled *bool `json:"enabled,omitempty" protobuf:"varint,3,opt,name=enabled"`

	// default is the CRD author's default, used when enabled is not set. An alpha gate may
	// only default to false, a stable gate only to true, and a deprecated gate must set it.
	// +optional
	Default *bool `json:"default,omitempty" protobuf:"varint,4,opt,name=default"`

	// fieldDeprecationWarning replaces the default warning sent when a field of a deprecated
	// gate is used. It may only be set when preRelease is deprecated. At most 256 printable
	// characters, since it is sent in an HTTP Warning header.
	// +optional
	FieldDeprecationWarning *string `json:"fieldDeprecationWarning,omitempty" protobuf:"bytes,5,opt,name=fieldDeprecationWarning"`

	// fieldPaths are fields the gate guards, as paths in the storage version's schema,
	// such as `.spec.replicas`. `[*]` after a segment means every item of a list or every
	// value of a map, such as `.spec.containers[*].image`. Paths into metadata, apiVersion
	// or kind are not allowed. A gate may instead guard fields by marking their schema
	// nodes with x-kubernetes-feature-gate in each version, which needs no change when the
	// storage version changes; a gate with neither guards only values or rules, through
	// featureGates in x-kubernetes-validations.
	// +listType=set
	// +optional
	FieldPaths []string `json:"fieldPaths,omitempty" protobuf:"bytes,6,rep,name=fieldPaths"`

	// requires names other gates of this CRD that must be enabled for this gate to be
	// enabled. A gate that requires others is enabled only when its own state (by the rules
	// above) and the state of every gate it requires, transitively, are enabled. A field,
	// value, bound or rule that exists only while several gates are all enabled belongs to
	// a gate that requires them: a stable gate with requires [A, B] is enabled exactly when
	// A and B are, so promoting A alone does not enable it. Each name must be another
	// declared gate, listed once, and requires must not form a cycle.
	// +listType=set
	// +optional
	Requires []string `json:"requires,omitempty" protobuf:"bytes,7,rep,name=requires"`

	// requiresAnyOf names other gates of this CRD of which at least one must be enabled for
	// this gate to be enabled. When it is set, a gate is enabled only when its own state,
	// the state of every gate in requires, and the state of at least one gate in
	// requiresAnyOf are enabled. A field, value, bound or rule that each of several gates
	// adds on its own belongs to a gate that requires any of them: a stable gate with
	// requiresAnyOf [A, B] is enabled exactly when A or B is. Each name must be another
	// declared gate, listed once, and requires and requiresAnyOf together must not form a
	// cycle.
	// +listType=set
	// +optional
	RequiresAnyOf []string `json:"requiresAnyOf,omitempty" protobuf:"bytes,8,rep,name=requiresAnyOf"`
}

// FeatureGatedValidation adds validation keywords to a schema node while a custom feature
// gate is in a given state (KEP-2608). While the entry applies, its keywords hold in
// addition to the node's own: enums intersect, the tighter bound holds, required lists add
// up, and a pattern or format the node already has must match as well. The API server
// compiles the applying entries into the node's keywords once per CRD revision, so a value
// that breaks one gets the keyword's usual error, at the keyword's usual cost.
type FeatureGatedValidation struct {
	// featureGate names a gate declared in the CRD's spec.customFeatureGates.
	// +required
	FeatureGate string `json:"featureGate" protobuf:"bytes,1,opt,name=featureGate"`

	// enabled is the gate state in which the entry applies: true while the gate is enabled,
	// false while it is disabled.
	// +required
	Enabled bool `json:"enabled" protobuf:"varint,2,opt,name=enabled"`

	// format is checked like the node's format, in addition to it.
	// +optional
	Format string `json:"format,omitempty" protobuf:"bytes,3,opt,name=format"`
	// maximum bounds a number or integer; with the node's maximum, the smaller holds.
	// +optional
	Maximum *float64 `json:"maximum,omitempty" protobuf:"bytes,4,opt,name=maximum"`
	// exclusiveMaximum makes this entry's maximum exclusive. It requires maximum.
	// +optional
	ExclusiveMaximum bool `json:"exclusiveMaximum,omitempty" protobuf:"varint,5,opt,name=exclusiveMaximum"`
	// minimum bounds a number or integer; with the node's minimum, the larger holds.
	// +optional
	Minimum *float64 `json:"minimum,omitempty" protobuf:"bytes,6,opt,name=minimum"`
	// exclusiveMinimum makes this entry's minimum exclusive. It requires minimum.
	// +optional
	ExclusiveMinimum bool `json:"exclusiveMinimum,omitempty" protobuf:"varint,7,opt,name=exclusiveMinimum"`
	// maxLength bounds the length of a string.
	// +optional
	MaxLength *int64 `json:"maxLength,omitempty" protobuf:"varint,8,opt,name=maxLength"`
	// minLength bounds the length of a string.
	// +optional
	MinLength *int64 `json:"minLength,omitempty" protobuf:"varint,9,opt,name=minLength"`
	// pattern is a regular expression a string must match, in addition to the node's.
	// +optional
	Pattern string `json:"pattern,omitempty" protobuf:"bytes,10,opt,name=pattern"`
	// maxItems bounds the length of an array.
	// +optional
	MaxItems *int64 `json:"maxItems,omitempty" protobuf:"varint,11,opt,name=maxItems"`
	// minItems bounds the length of an array.
	// +optional
	MinItems *int64 `json:"minItems,omitempty" protobuf:"varint,12,opt,name=minItems"`
	// multipleOf requires a number or integer to be a multiple of it, in addition to the
	// node's multipleOf.
	// +optional
	MultipleOf *float64 `json:"multipleOf,omitempty" protobuf:"bytes,13,opt,name=multipleOf"`
	// enum lists the values allowed, in addition to the node's enum: a value must be in both.
	// +listType=atomic
	// +optional
	Enum []JSON `json:"enum,omitempty" protobuf:"bytes,14,rep,name=enum"`
	// maxProperties bounds the number of properties of an object.
	// +optional
	MaxProperties *int64 `json:"maxProperties,omitempty" protobuf:"varint,15,opt,name=maxProperties"`
	// minProperties bounds the number of properties of an object.
	// +optional
	MinProperties *int64 `json:"minProperties,omitempty" protobuf:"varint,16,opt,name=minProperties"`
	// required lists properties of the node that an object must have, in addition to the
	// node's required.
	// +listType=atomic
	// +optional
	Required []string `json:"required,omitempty" protobuf:"bytes,17,rep,name=required"`
}
