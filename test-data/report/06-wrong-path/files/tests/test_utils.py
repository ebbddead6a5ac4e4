from requests.utils import quote
