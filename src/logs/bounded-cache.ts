/**
 * `create` remembered for up to `limit` keys; past that the oldest is forgotten. For the SQL a
 * log writer or reader sees: a few shapes repeat, and an unusual one must not grow memory.
 */
export function boundedCache<Key, Value>(limit: number, create: (key: Key) => Value): (key: Key) => Value {
  const remembered = new Map<Key, Value>();
  return (key) => {
    let value = remembered.get(key);
    if (value === undefined) {
      if (remembered.size >= limit) remembered.delete(remembered.keys().next().value!);
      remembered.set(key, (value = create(key)));
    }
    return value;
  };
}
