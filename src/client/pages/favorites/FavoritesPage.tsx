import { ComingSoon } from '../../components/ComingSoon';

export default function FavoritesPage() {
  return <ComingSoon title="Favorites" />;
}
