export default function Page() {
  return <p>Nothing but the framework.</p>;
}
