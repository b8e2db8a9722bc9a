/** Labels and values, one under the other. */
export function FieldList({
  fields,
  className = "mt-3 space-y-2 text-sm",
  valueClassName = "break-words",
}: {
  fields: [label: string, value: string][];
  className?: string;
  valueClassName?: string;
}) {
  return (
    <dl className={className}>
      {fields.map(([label, value]) => (
        <div key={label}>
          <dt className="text-slate-500">{label}</dt>
          <dd className={valueClassName}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
