import { ComingSoon } from '../../components/ComingSoon';

/** Spec placeholder: /messages has no content in this version of the product. */
export default function MessagesPage() {
  return <ComingSoon title="Messages" />;
}
