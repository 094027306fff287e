package config

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
)

// checkShape walks the merged configuration (defaults, file, environment)
// against the Config type before decoding, so that every unknown key and
// every value of the wrong kind is reported with its dotted key, the form
// the key wants and where the value came from. mapstructure's weak typing
// (needed for environment values, which are all text) would otherwise turn
// `addr = 8080` into "8080" and `per = 60` into 60 nanoseconds without a
// word, and its own messages name neither the form nor the closest key.
//
// env maps a key set from the environment to the variable that set it.
func checkShape(raw map[string]any, env map[string]string) error {
	w := shapeWalker{env: env}
	w.table(raw, reflect.TypeOf(Config{}), "")
	return errors.Join(w.errs...)
}

type shapeWalker struct {
	env  map[string]string
	errs []error
}

var durationType = reflect.TypeOf(time.Duration(0))

// fieldsOf maps the koanf keys of a struct type to their fields.
func fieldsOf(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("koanf")
		if tag == "" || tag == "-" || !f.IsExported() {
			continue
		}
		out[tag] = f
	}
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// source names where the value at key came from, for the end of a
// message: the environment variable, or nothing (the file, which the
// caller names).
func (w *shapeWalker) source(key string) string {
	for k := key; k != ""; {
		if v, ok := w.env[k]; ok {
			return " (from the environment variable " + v + ")"
		}
		i := strings.LastIndexByte(k, '.')
		if i < 0 {
			break
		}
		k = k[:i]
	}
	// An environment variable may also have set keys below this one.
	var vars []string
	for k, v := range w.env {
		if strings.HasPrefix(k, key+".") {
			vars = append(vars, v)
		}
	}
	if len(vars) > 0 {
		sort.Strings(vars)
		return " (from the environment: " + strings.Join(vars, ", ") + ")"
	}
	return ""
}

func (w *shapeWalker) bad(key string, format string, args ...any) {
	w.errs = append(w.errs, fmt.Errorf("%s: %s%s", key, fmt.Sprintf(format, args...), w.source(key)))
}

// table checks a TOML table against a struct type: every key known, every
// value of its field's kind.
func (w *shapeWalker) table(m map[string]any, t reflect.Type, path string) {
	fields := fieldsOf(t)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		key := join(path, k)
		f, ok := fields[k]
		if !ok {
			known := make([]string, 0, len(fields))
			for name := range fields {
				known = append(known, name)
			}
			msg := "unknown key"
			if v, ok := w.env[key]; ok && path == "" && strings.Contains(k, "_") {
				// BESLUITBRON_SERVER_ADDR: a section and a key joined by
				// one underscore where the path needs two.
				for i := range len(k) {
					if k[i] == '_' {
						if _, ok := fields[k[:i]]; ok {
							msg += fmt.Sprintf(" (did you mean %s%s__%s? path segments are joined by __)", EnvPrefix, strings.ToUpper(k[:i]), strings.ToUpper(k[i+1:]))
							break
						}
					}
				}
				if msg != "unknown key" {
					w.errs = append(w.errs, fmt.Errorf("%s: %s (from the environment variable %s)", key, msg, v))
					continue
				}
			}
			if near := closest(k, known); near != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", join(path, near))
			} else {
				sort.Strings(known)
				where := "at the top level"
				if path != "" {
					where = "under [" + path + "]"
				}
				msg += fmt.Sprintf("; known keys %s: %s", where, strings.Join(known, ", "))
			}
			w.bad(key, "%s", msg)
			continue
		}
		w.value(m[k], f.Type, key, f.Tag.Get("form"))
	}
}

// value checks one value against the Go type it decodes into. form, from
// the field's `form` tag, describes what the key wants in the admin's
// words; without one it is derived from the type.
func (w *shapeWalker) value(v any, t reflect.Type, key, form string) {
	if form == "" {
		form = formOf(t)
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == durationType:
		s, ok := v.(string)
		if !ok {
			w.bad(key, "want %s, got %s", form, describe(v))
			return
		}
		if _, err := time.ParseDuration(s); err != nil {
			w.bad(key, "want %s, got %q", form, s)
		}
	case t.Kind() == reflect.String:
		if _, ok := v.(string); !ok {
			w.bad(key, "want %s, got %s", form, describe(v))
		}
	case t.Kind() == reflect.Bool:
		switch x := v.(type) {
		case bool:
		case string: // from the environment
			if _, err := strconv.ParseBool(x); err != nil {
				w.bad(key, "want %s, got %q", form, x)
			}
		default:
			w.bad(key, "want %s, got %s", form, describe(v))
		}
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		switch x := v.(type) {
		case int64, int:
		case float64:
			if x != float64(int64(x)) {
				w.bad(key, "want %s, got %v", form, x)
			}
		case string:
			if _, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err != nil {
				w.bad(key, "want %s, got %q", form, x)
			}
		default:
			w.bad(key, "want %s, got %s", form, describe(v))
		}
	case t.Kind() == reflect.Float64 || t.Kind() == reflect.Float32:
		switch x := v.(type) {
		case int64, int, float64:
		case string:
			if _, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err != nil {
				w.bad(key, "want %s, got %q", form, x)
			}
		default:
			w.bad(key, "want %s, got %s", form, describe(v))
		}
	case t.Kind() == reflect.Slice:
		items, ok := v.([]any)
		if !ok {
			w.bad(key, "want %s, got %s", form, describe(v))
			return
		}
		for i, it := range items {
			w.value(it, t.Elem(), fmt.Sprintf("%s[%d]", key, i), "")
		}
	case t.Kind() == reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			w.bad(key, "want %s, got %s", form, describe(v))
			return
		}
		w.table(m, t, key)
	case t.Kind() == reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			w.bad(key, "want %s, got %s", form, describe(v))
			return
		}
		names := make([]string, 0, len(m))
		for k := range m {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			w.value(m[k], t.Elem(), join(key, k), "")
		}
	}
}

// formOf says in words what a value of type t looks like in TOML.
func formOf(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == durationType:
		return `a duration in quotes, such as "10s" or "1m30s"`
	case t.Kind() == reflect.String:
		return "text in quotes"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		return "a whole number"
	case t.Kind() == reflect.Float64 || t.Kind() == reflect.Float32:
		return "a number"
	case t.Kind() == reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return `a list in brackets, such as ["…", "…"]`
		}
		return "a list in brackets of " + formOf(t.Elem())
	case t.Kind() == reflect.Struct, t.Kind() == reflect.Map:
		return "a table ([section] with keys under it)"
	}
	return t.String()
}

// describe names a value's TOML kind, with the value when it is short.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "nothing"
	case string:
		return fmt.Sprintf("the text %q", x)
	case bool:
		return fmt.Sprintf("%v (true or false)", x)
	case int64, int:
		return fmt.Sprintf("the number %v", x)
	case float64:
		return fmt.Sprintf("the number %v", x)
	case []any:
		return fmt.Sprintf("a list of %d", len(x))
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("%v (%T)", v, v)
}

// closest returns the known key nearest to k by edit distance, or "" when
// none is near enough to be a likely typo.
func closest(k string, known []string) string {
	best, bestD := "", 0
	sort.Strings(known) // ties go to the first alphabetically, stably
	for _, c := range known {
		d := distance(strings.ToLower(k), c)
		if best == "" || d < bestD {
			best, bestD = c, d
		}
	}
	limit := max(2, len(k)/3)
	if best == "" || bestD > limit {
		return ""
	}
	return best
}

// distance is the Levenshtein distance, with a swap of two neighbours
// counted as one edit (the commonest typo).
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range rb {
		d[0][j+1] = j + 1
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// syntaxError rewrites the TOML parser's error as file:line:column, the
// parser's words, and the line with a caret under the column. The parser
// (pelletier/go-toml, behind koanf) reports the position through a
// Position method; it is asked through an interface so this package needs
// no import of its own on it.
func syntaxError(path string, err error) error {
	var pe interface {
		error
		Position() (row, column int)
	}
	if !errors.As(err, &pe) {
		return fmt.Errorf("config %s: %w", path, err)
	}
	row, col := pe.Position()
	msg := strings.TrimPrefix(pe.Error(), "toml: ")
	out := fmt.Sprintf("config %s:%d:%d: TOML syntax error: %s", path, row, col, msg)
	if b, rerr := os.ReadFile(path); rerr == nil {
		lines := strings.Split(string(b), "\n")
		if row >= 1 && row <= len(lines) {
			line := strings.TrimRight(lines[row-1], "\r")
			num := strconv.Itoa(row)
			pad := strings.Repeat(" ", len(num))
			// The caret goes under the column, counted in characters;
			// tabs are kept so it lines up in a terminal.
			var caret strings.Builder
			for i, r := range []rune(line) {
				if i >= col-1 {
					break
				}
				if r == '\t' {
					caret.WriteRune('\t')
				} else {
					caret.WriteRune(' ')
				}
			}
			out += fmt.Sprintf("\n  %s | %s\n  %s | %s^", num, line, pad, caret.String())
		}
	}
	return errors.New(out)
}
