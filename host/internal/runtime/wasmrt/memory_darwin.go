package wasmrt

const mapNoReserve = 0
