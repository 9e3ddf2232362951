// A malformed #thunky.allocation is refused with one line saying what.
// RUN: thunky-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{expected an allocation entry: index = N, parameter N, output {...}, scratch, a type, a flag, color = N, parameter_shape_index = [...] or assigned = [...]}}
func.func private @unknown_entry() attributes {a = #thunky.allocation<bogus>}

// -----

// expected-error @+1 {{index must be >= 0}}
func.func private @negative_index() attributes {a = #thunky.allocation<index = -1>}

// -----

// expected-error @+1 {{'index' given twice}}
func.func private @twice() attributes {a = #thunky.allocation<index = 1, index = 2>}

// -----

// expected-error @+1 {{#thunky.allocation: scratch is neither a parameter nor an output}}
func.func private @scratch_parameter() attributes {a = #thunky.allocation<scratch, parameter 0>}

// -----

// expected-error @+1 {{#thunky.allocation: live_out, tuple, constant, aliased, color, parameter_shape_index and assigned are fields of a recorded allocation: they need its index}}
func.func private @fields_without_index() attributes {a = #thunky.allocation<parameter 0, live_out>}

// -----

// expected-error @+1 {{unknown element type 'f99'}}
func.func private @bad_element_type() attributes {a = #thunky.allocation<index = 0, assigned = [1 at 0 + 4 : f99]>}

// -----

// expected-error @+1 {{#thunky.allocation: an output index is at most 16 deep}}
func.func private @deep() attributes {a = #thunky.allocation<output {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}>}
