// The floor of a single executable's start-up (`npm run build:sea -- floor`): a main that does
// nothing, so that tools/bench/clientctl compares Node's own start of a SEA with `node -e 0`.
