package nativewire

import (
	"encoding/json"

	"google.golang.org/grpc/encoding"
)

// CodecName is the gRPC content subtype of every BesluitBron message:
// calls are sent as "application/grpc+besluitbron-json".
const CodecName = "besluitbron-json"

// jsonCodec encodes messages with encoding/json. It is registered
// globally (gRPC looks codecs up by content subtype), which is harmless:
// only calls that ask for [CodecName] use it.
type jsonCodec struct{}

func (jsonCodec) Marshal(v any) ([]byte, error)      { return json.Marshal(v) }
func (jsonCodec) Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
func (jsonCodec) Name() string                       { return CodecName }

func init() { encoding.RegisterCodec(jsonCodec{}) }

var _ encoding.Codec = jsonCodec{}
