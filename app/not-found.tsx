import { NotFoundNotice } from "@/components/ui/not-found-notice";

// Outside the signed-in area no layout gives a <main>: this page does.
export default function NotFound() {
  return (
    <main>
      <NotFoundNotice />
    </main>
  );
}
